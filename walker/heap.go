package walker

// entry is a heap element: its rank (cost, then tie) and its payload.
type entry[T any] struct {
	cost float64
	tie  uint64 // orders equal costs; all 0: the heap's own fixed order
	v    T
}

func (e *entry[T]) before(o *entry[T]) bool {
	return e.cost < o.cost || e.cost == o.cost && e.tie < o.tie
}

// minHeap is a binary min-heap on a slice it reuses, for both walks. It is
// hand-written rather than container/heap, which would box every element
// into an interface and allocate, and it ranks by fields rather than by a
// method of T, which generic code would call indirectly.
type minHeap[T any] []entry[T]

func (h *minHeap[T]) push(cost float64, tie uint64, v T) {
	s := append(*h, entry[T]{cost, tie, v})
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	*h = s
}

// pop removes and returns the first element; the heap must not be empty.
func (h *minHeap[T]) pop() (float64, T) {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s[l].before(&s[m]) {
			m = l
		}
		if r < n && s[r].before(&s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top.cost, top.v
}
