package sim

// heapItem is what a minHeap holds: an order, and the request it is about.
type heapItem[T any] interface {
	before(T) bool
	request() *seq
}

// minHeap is a binary heap of values, least first by before: a typed one,
// since container/heap would box every element it holds.
type minHeap[T heapItem[T]] []T

func (h *minHeap[T]) push(x T) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

// remove takes out the element at i and returns it.
func (h *minHeap[T]) remove(i int) T {
	q := *h
	x := q[i]
	last := len(q) - 1
	q[i] = q[last]
	var zero T
	q[last] = zero
	q = q[:last]
	*h = q
	if i < len(q) {
		q.down(i)
		q.up(i)
	}
	return x
}

func (h minHeap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h minHeap[T]) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && h[l].before(h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && h[r].before(h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// find is the index of the element about s, or -1 (a live request
// cancelled while the front end still has it).
func (h minHeap[T]) find(s *seq) int {
	for i := range h {
		if h[i].request() == s {
			return i
		}
	}
	return -1
}
