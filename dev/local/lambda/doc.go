// Package lambda is a local Lambda service: it runs the functions' real
// bootstrap binaries (provided.al2023 custom runtimes, built with
// -tags lambda.norpc) as processes and speaks the Lambda Runtime API
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) to them,
// so a function runs locally exactly as the binary that is deployed — no
// Docker, no SAM CLI, no Runtime Interface Emulator.
//
// A Service keeps up to Function.MaxEnvironments execution environments per
// function. Each environment is one process in its own process group with
// its own Runtime API server on a loopback port (AWS_LAMBDA_RUNTIME_API).
// Invoke hands the event to an idle ("warm") environment, or starts one
// (a cold start, whose init duration — from process start to the runtime's
// first GET …/invocation/next — the Result reports), and waits for the
// runtime's response or error, the process's exit or the deadline.
//
// Failures behave as in Lambda, with Lambda's error types and messages:
//
//   - the runtime POSTs …/error: a function error with the runtime's
//     errorType and errorMessage (aws-lambda-go reports a panic this way and
//     then exits; the environment is discarded when the process exits);
//   - no response by the deadline (now + Timeout): the process group is
//     killed and the error is Sandbox.Timedout,
//     "RequestId: <id> Error: Task timed out after 3.00 seconds";
//   - the process exits during an invocation: Runtime.ExitError,
//     "RequestId: <id> Error: Runtime exited with error: exit status 3"
//     ("signal: killed" when killed);
//   - init fails — the runtime POSTs …/init/error (its errorType, default
//     Runtime.InitError), exits before its first /next (Runtime.ExitError),
//     or does not reach /next within InitTimeout (Sandbox.Timedout);
//   - the bootstrap cannot be started: Runtime.InvalidEntrypoint;
//   - a response over 6291556 bytes: Function.ResponseSizeTooLarge.
//
// A failed environment is discarded and the next Invoke starts a fresh one,
// so a runtime that crashed is restarted. Result.Payload is what Lambda's
// Invoke API returns: the response, or the error document for a function
// error.
//
// Processes are signalled only through the process group of a process this
// package started and has not yet reaped; on Linux they also get SIGKILL
// when the thread that started them dies, so a crashed test binary leaves
// no bootstrap behind. Close stops everything (SIGTERM, then SIGKILL after
// StopGrace).
package lambda
