package sound

import "math"

// Queue hands the synthesiser's samples to an audio clock that plays
// buffers scheduled ahead of it (a browser's Web Audio: one
// AudioBufferSourceNode a chunk, started at its time), from a loop that
// runs once a frame: each Pump tops the schedule up to lead seconds
// ahead of the clock. A frame late enough for the clock to pass the end
// of the schedule is a gap: the schedule starts again just ahead of the
// clock, rather than piling chunks up in the past.
type Queue struct {
	s     *Synth
	buf   []float32
	next  float64 // clock time the next chunk starts at; 0: nothing scheduled
	Gaps  int     // times the clock ran past the schedule
	Plays int     // chunks handed over
}

const (
	// QueueChunk is the samples of one scheduled buffer (46 ms).
	QueueChunk = 2048
	// queueMargin is how far ahead of the clock a fresh schedule starts,
	// so its first chunk is not already late when it is handed over.
	queueMargin = 0.03
	// MaxLead bounds how far ahead a Pump schedules (seconds): the
	// latency of a change of throttle.
	MaxLead = 0.5
)

// NewQueue reads from s.
func NewQueue(s *Synth) *Queue { return &Queue{s: s, buf: make([]float32, QueueChunk)} }

// Pump schedules chunks until the schedule reaches now + lead (lead is
// capped at MaxLead), calling play for each with its start time on the
// clock and its samples (the same slice each time: play copies it).
func (q *Queue) Pump(now, lead float64, play func(start float64, samples []float32)) {
	if math.IsNaN(now) || math.IsNaN(lead) {
		return
	}
	lead = math.Min(math.Max(lead, 0), MaxLead)
	if q.next < now {
		if q.next > 0 {
			q.Gaps++
		}
		q.next = now + queueMargin
	}
	for q.next < now+lead {
		q.s.Fill(q.buf)
		play(q.next, q.buf)
		q.Plays++
		q.next += float64(QueueChunk) / SampleRate
	}
}
