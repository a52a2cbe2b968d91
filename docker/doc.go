// Package docker holds the Docker image (Dockerfile), the compose file of
// diverse-select and image-test.sh (make image-test), which builds the image
// with podman and runs it as the compose file describes (tools/imagetest
// checks it). There is no Go code here: docker_test.go checks that both
// files reference only files, make targets, binaries, flags and environment
// variables that exist.
package docker
