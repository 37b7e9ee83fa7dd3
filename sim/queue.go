package sim

import "container/heap"

// waitQueue is the scheduler's waiting queue (vllm/v1/core/sched/request_queue.py):
// FCFS is a deque where preempted requests go back to the front; PRIORITY is
// a heap ordered by (priority, arrival time).
type waitQueue interface {
	len() int
	peek() *seq
	pop() *seq
	pushBack(*seq)    // a new arrival
	pushFront(*seq)   // a preempted request (prepend_request)
	remove(*seq) bool // an aborted request
}

// fcfsQueue is a ring-buffer deque.
type fcfsQueue struct {
	buf        []*seq
	head, size int
}

func (q *fcfsQueue) len() int { return q.size }

func (q *fcfsQueue) peek() *seq { return q.buf[q.head] }

func (q *fcfsQueue) pop() *seq {
	s := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return s
}

func (q *fcfsQueue) grow() {
	if q.size < len(q.buf) {
		return
	}
	n := max(16, 2*len(q.buf))
	buf := make([]*seq, n)
	for i := 0; i < q.size; i++ {
		buf[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = buf, 0
}

func (q *fcfsQueue) pushBack(s *seq) {
	q.grow()
	q.buf[(q.head+q.size)%len(q.buf)] = s
	q.size++
}

func (q *fcfsQueue) pushFront(s *seq) {
	q.grow()
	q.head = (q.head - 1 + len(q.buf)) % len(q.buf)
	q.buf[q.head] = s
	q.size++
}

func (q *fcfsQueue) remove(s *seq) bool {
	for i := 0; i < q.size; i++ {
		if q.buf[(q.head+i)%len(q.buf)] != s {
			continue
		}
		for j := i; j < q.size-1; j++ {
			q.buf[(q.head+j)%len(q.buf)] = q.buf[(q.head+j+1)%len(q.buf)]
		}
		q.buf[(q.head+q.size-1)%len(q.buf)] = nil
		q.size--
		return true
	}
	return false
}

// priorityQueue orders by (priority, arrival, index), as vLLM's Request.__lt__
// does with (priority, arrival_time, request_id).
type priorityQueue struct{ h seqHeap }

func (q *priorityQueue) len() int        { return len(q.h) }
func (q *priorityQueue) peek() *seq      { return q.h[0] }
func (q *priorityQueue) pop() *seq       { return heap.Pop(&q.h).(*seq) }
func (q *priorityQueue) pushBack(s *seq) { heap.Push(&q.h, s) }

// pushFront is a plain push: with PRIORITY, prepend_request is a heap push.
func (q *priorityQueue) pushFront(s *seq) { heap.Push(&q.h, s) }

func (q *priorityQueue) remove(s *seq) bool {
	for i, x := range q.h {
		if x == s {
			heap.Remove(&q.h, i)
			return true
		}
	}
	return false
}

type seqHeap []*seq

func (h seqHeap) Len() int           { return len(h) }
func (h seqHeap) Less(i, j int) bool { return before(h[i], h[j]) }
func (h seqHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seqHeap) Push(x any)        { *h = append(*h, x.(*seq)) }
func (h *seqHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// before is vLLM's priority order: lower priority value first, then earlier
// arrival, then request order.
func before(a, b *seq) bool {
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.arrival != b.arrival {
		return a.arrival < b.arrival
	}
	return a.idx < b.idx
}

// startedQueue is a waiting queue that counts the requests in it that have
// produced a token already (preempted after their first): the rest wait
// for their first token, the ones calibration's TTFT gradient charges a
// step's time to (Batch.AwaitingFirst). A request's first token does not
// change while it waits, so counting at the ends is exact.
type startedQueue struct {
	waitQueue
	started int
}

func (q *startedQueue) count(s *seq, d int) {
	if s.firstToken >= 0 {
		q.started += d
	}
}

func (q *startedQueue) pop() *seq {
	s := q.waitQueue.pop()
	q.count(s, -1)
	return s
}

func (q *startedQueue) pushBack(s *seq) {
	q.count(s, 1)
	q.waitQueue.pushBack(s)
}

func (q *startedQueue) pushFront(s *seq) {
	q.count(s, 1)
	q.waitQueue.pushFront(s)
}

func (q *startedQueue) remove(s *seq) bool {
	if !q.waitQueue.remove(s) {
		return false
	}
	q.count(s, -1)
	return true
}

// unstarted is how many requests in the queue wait for their first token.
func (q *startedQueue) unstarted() int { return q.len() - q.started }
