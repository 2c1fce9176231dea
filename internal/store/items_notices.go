package store

// Notices are an item owner's choices of failure notices (package notice):
// what the item's webhook is told besides the delivery of its result. They
// come from the item's spec (package intake) and never change afterwards.
type Notices struct {
	// Failed asks for an item.failed notice when the item is dead-lettered.
	Failed bool `dynamodbav:"failed" json:"failed"`
	// RetryScheduled asks for an item.retry_scheduled notice each time a
	// failure that spent an attempt is scheduled for another one. Waits that
	// spend no attempt (a closed gate, the daily budget, a provider's
	// quota) send none.
	RetryScheduled bool `dynamodbav:"retry_scheduled" json:"retry_scheduled"`
}

// DefaultNotices is what an item of kind k is told when its spec does not
// say: item.failed for action tasks — someone scheduled them and waits for
// the outcome —, nothing for stories and documents. item.retry_scheduled is
// never on by default.
func DefaultNotices(k Kind) Notices {
	return Notices{Failed: k == KindAction}
}

// NoticeChoices returns the item's notice choices: the ones stored with it,
// or its kind's defaults for an item created before notices existed.
func (it Item) NoticeChoices() Notices {
	if it.Notices != nil {
		return *it.Notices
	}
	kind := it.Kind
	if kind == "" {
		kind = KindStory
	}
	return DefaultNotices(kind)
}

// copyOf returns a pointer to a copy of *p; nil for nil.
func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
