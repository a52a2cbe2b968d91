// Package docker holds the Docker image (Dockerfile) and the compose file of
// diverse-select. There is no Go code here: docker_test.go checks that both
// files reference only files, make targets, binaries, flags and environment
// variables that exist, since no Docker engine runs in CI.
package docker
