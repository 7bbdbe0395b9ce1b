package sweep

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleLog = `time=t level=WARN msg="item exceeded its slot; built with simplified detail" key=1429
time=t level=WARN msg="car stuck" x=12 z=-40 after_s=31 reproduce="-start 12,-40"
time=t level=WARN msg="car touched an obstacle" what=furniture x=3 z=4
time=t level=WARN msg="car stuck" x=7 z=8 after_s=50 reproduce="-start 7,8"
`

func TestWarningsAndHintsComeFromTheLog(t *testing.T) {
	ws := Warnings(sampleLog)
	require.Len(t, ws, 3, "the drive's warnings, not the streaming's")
	assert.Contains(t, ws[1], "car touched an obstacle")
	assert.Equal(t, []string{"-start 12,-40", "-start 7,8"}, StartHints(sampleLog))
	assert.Empty(t, StartHints(""))
}

func TestRecordIsOneJSONObjectPerRun(t *testing.T) {
	stuck := ok(0.3)
	stuck.StuckEpisodes = 1
	r := judged(9, 17.5, 2*time.Second, stuck)
	r.File, r.Log = "out/seed-9-hour-17.5.txt", sampleLog
	b, err := json.Marshal(RecordOf(r))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "run", m["type"])
	assert.Equal(t, false, m["ok"])
	assert.Equal(t, 17.5, m["hour"])
	assert.Equal(t, 60.0, m["duration_s"])
	assert.Equal(t, "citydrive soak -seed 9 -hour 17.5 -duration 1m -v", m["reproduce"])
	assert.Equal(t, "out/seed-9-hour-17.5.txt", m["file"])
	assert.Len(t, m["broken"], 2, "stuck and short")
	assert.EqualValues(t, 1, m["report"].(map[string]any)["stuck_episodes"])

	line := Line(r)
	assert.Equal(t, "FAIL seed 9 hour 17.5: 1 stuck episodes (want 0); drove 0.30 km (want ≥ 0.50: 0.5 per simulated minute); "+
		"reproduce: citydrive soak -seed 9 -hour 17.5 -duration 1m -v (first stuck at: add -start 12,-40); details: out/seed-9-hour-17.5.txt", line)

	b, err = json.Marshal(RecordOf(crashed(3, 0)))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Nil(t, m["report"], "no report from a soak that did not finish")
	assert.Equal(t, "exit status 2: boom", m["error"])

	passed := judged(1, 0, time.Second, ok(1))
	assert.Equal(t, "ok   seed 1 hour 0: 1.00 km, 200 builds, 0 contacts, 1.0 s", Line(passed))
	b, err = json.Marshal(RecordOf(passed))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"broken":[]`, "an empty list, not null")
}
