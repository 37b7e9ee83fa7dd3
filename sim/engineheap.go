package sim

import "container/heap"

// engineHeap orders replicas by their next event (then id, so the order of
// simultaneous events is fixed). With many replicas, finding the next
// event is then a heap lookup instead of a scan of every replica per step.
type engineHeap []*engine

func (h engineHeap) Len() int { return len(h) }
func (h engineHeap) Less(i, j int) bool {
	return h[i].due < h[j].due || h[i].due == h[j].due && h[i].id < h[j].id
}
func (h engineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapAt, h[j].heapAt = i, j
}
func (h *engineHeap) Push(x any) {
	e := x.(*engine)
	e.heapAt = len(*h)
	*h = append(*h, e)
}
func (h *engineHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (h *engineHeap) push(e *engine) {
	e.due = e.nextEvent()
	heap.Push(h, e)
}

// update re-keys e after its state changed.
func (h *engineHeap) update(e *engine) {
	if d := e.nextEvent(); d != e.due {
		e.due = d
		heap.Fix(h, e.heapAt)
	}
}

// secondDue is the next event of any replica but the first: the earlier of
// the root's children.
func (h engineHeap) secondDue() int64 {
	d := int64(never)
	for _, i := range []int{1, 2} {
		if i < len(h) {
			d = min(d, h[i].due)
		}
	}
	return d
}
