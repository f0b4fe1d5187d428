// Package config reads crank-format YAML configurations and resolves a scenario into rendered
// jobs, one per service.
//
// Load reads files or URLs with their imports and merges them. Resolve then builds each service
// of a scenario in one fixed order:
//
//	base job (jobs.<name>, or the one named by --<service>.job)
//	  < scenario service keys
//	  < each --profile in order: its common keys, then its jobs:/agents: entries for the service
//	  < --<service>.<path> overrides, in command-line order
//
// Variables are then merged (root < job < --variable), rendered against each other until stable,
// every string of the job is rendered with Liquid against them, and the result is decoded
// strictly into an api.Job. docs/CONFIG.md describes the format and where it differs from crank.
package config
