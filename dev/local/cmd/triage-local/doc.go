// Command triage-local runs triage's functions locally, without Docker or the
// SAM CLI: it is the `sam local invoke` of the Docker-free local stack.
//
//	go run ./dev/local/cmd/triage-local invoke --function fetch --event events/fetch/normal.json
//
// invoke runs one function once with one event, as Lambda would:
//
//  1. the local AWS: with no --endpoint it starts moto_server on a loopback
//     port (package moto); with --endpoint it uses that moto;
//  2. the upstream fakes (package fakes: the LLM in four wire formats, the
//     article server, the webhook receiver), served in-process on loopback
//     ports;
//  3. the stack: CloudFormation CreateStack (the SDK) from template.yaml
//     (package stack) with LLMBaseUrl, AnthropicBaseUrl and
//     BedrockEndpointUrl pointing at the fake LLM and
//     BlockPrivateNetworks=false, so the functions may reach the loopback
//     fakes — or, with --endpoint, the stack named --stack if it exists;
//     then the SSM SecureString parameters the functions read
//     (/triage/llm-api-key, /triage/anthropic-api-key,
//     /triage/webhook-signing-secret by default)
//     are seeded with the keys the fakes expect;
//  4. the bootstrap: `go build -tags lambda.norpc` of ./cmd/<name>
//     for this machine into .build/<LogicalId>/bootstrap, as
//     `make bootstraps` does (--build=missing reuses an existing binary,
//     --bootstrap names one);
//  5. the function's environment, resolved from template.yaml
//     (Globals merged, !Ref/!GetAtt/!Sub against the stack);
//  6. one invocation through the local Lambda service (package lambda),
//     which speaks the Lambda Runtime API to the bootstrap.
//
// The response — or the function error's document — goes to stdout; the
// function's logs, a Lambda-style REPORT line and progress go to stderr.
// --seed first puts the items the event's envelopes name into the Items
// table (pointing at the fakes), so the stage runs its real path instead of
// dead-lettering unknown items.
//
// Exit status: 0 when the function responded, 1 on a function error, 2 on
// a usage error, 3 when the local stack could not be set up, 130 when
// interrupted. Everything it started — moto, the fakes, the bootstrap
// processes — is stopped on every path, Ctrl-C included.
//
// Where Docker and the SAM CLI exist, the same events work with SAM itself:
//
//	sam build && sam local invoke FetchFunc -e events/fetch/normal.json
package main
