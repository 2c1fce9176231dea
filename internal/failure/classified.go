package failure

import "errors"

// Classified is a failure that carries its Classification. The first place
// that sees a failure classifies it once (Mark); everything after it — model
// health, the circuit breakers, the fallback chain's escalation, the stage
// runner — reads that Classification (Classify returns it) instead of
// classifying the error again (docs/design.md "Classifying a failure").
type Classified struct {
	// Err is the failure.
	Err error
	// Classification is what Classify made of Err.
	Classification Classification
}

// Error returns the failure's text: the classification is metadata.
func (e *Classified) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *Classified) Unwrap() error { return e.Err }

// Mark classifies err and returns it carrying its Classification. A nil
// error, a wait (ErrWaiting: a closed gate is no failure) and an error that
// already carries one are returned as they are.
func Mark(err error) error {
	if err == nil || errors.Is(err, ErrWaiting) {
		return err
	}
	if _, ok := carried(err); ok {
		return err
	}
	return &Classified{Err: err, Classification: Classify(err)}
}

// carried walks err's chain to the first Classified. An *Error met on the
// way outranks it (Classify), and so does a chain that branches
// (errors.Join), whose carried classification would speak for one branch
// only.
func carried(err error) (Classification, bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *Classified:
			return x.Classification, true
		case *Error:
			if x.Class.Valid() {
				return Classification{}, false
			}
		case interface{ Unwrap() []error }:
			return Classification{}, false
		}
	}
	return Classification{}, false
}
