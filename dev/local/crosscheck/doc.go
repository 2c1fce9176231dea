// Package crosscheck holds the simulator honest: the same scripted scenario,
// run by the policy simulator over its modelled SQS and Lambda and by the
// real bootstrap binaries on the local stack, must leave every item in the
// same terminal state. The package is its test alone.
package crosscheck
