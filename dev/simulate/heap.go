package simulate

// minHeap is a binary min-heap ordered by less. It is the simulator's
// agenda of events and each queue's visible messages; a typed heap avoids
// container/heap's interface conversions on the hot path.
type minHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

// Len returns the number of elements.
func (h *minHeap[T]) Len() int { return len(h.items) }

// peek returns the smallest element; the heap must not be empty.
func (h *minHeap[T]) peek() T { return h.items[0] }

func (h *minHeap[T]) push(x T) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *minHeap[T]) pop() T {
	n := len(h.items) - 1
	top := h.items[0]
	h.items[0] = h.items[n]
	var zero T
	h.items[n] = zero
	h.items = h.items[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(h.items[l], h.items[m]) {
			m = l
		}
		if r < n && h.less(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			return top
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
