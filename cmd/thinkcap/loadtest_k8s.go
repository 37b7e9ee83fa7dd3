package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/loadtest"
)

// k8sFlags are loadtest's flags for printing the test as a Kubernetes Job.
type k8sFlags struct {
	job, image, namespace, secret, pvc string
	shards                             int
	startDelay                         time.Duration
}

func (f *k8sFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.job, "k8s-job", "", "print the load test as a Kubernetes Indexed Job of this name (with --shards pods) and send nothing")
	fs.IntVar(&f.shards, "shards", 1, "with --k8s-job: pods, each a shard (--shard I/N)")
	fs.StringVar(&f.image, "k8s-image", "thinkcap:latest", "with --k8s-job: an image whose entry point is thinkcap")
	fs.StringVar(&f.namespace, "k8s-namespace", "", "with --k8s-job: the Job's namespace (default: kubectl's)")
	fs.StringVar(&f.secret, "k8s-secret", "", "with --k8s-job: the Secret holding the API key under api-key (default NAME-api-key)")
	fs.StringVar(&f.pvc, "k8s-pvc", "", "with --k8s-job: the ReadWriteMany volume claim the shards write to (default NAME-results)")
	fs.DurationVar(&f.startDelay, "k8s-start-delay", 2*time.Minute, "with --k8s-job: how far ahead the shards start together (pods scheduled, images pulled)")
}

// k8sFlagNames are the flags register adds; with --out, --shard and
// --start-at, which the Job sets per pod, they are left out of the pods'
// command line.
var k8sFlagNames = []string{"k8s-job", "shards", "k8s-image", "k8s-namespace", "k8s-secret", "k8s-pvc", "k8s-start-delay", "out", "shard", "start-at"}

// validate refuses the Job's flags without --k8s-job.
func (f *k8sFlags) validate(fs *pflag.FlagSet) error {
	if f.job != "" {
		if fs.Changed("header") {
			return errors.New("--header with --k8s-job would write the header values into the manifest: give the pods their headers another way")
		}
		if f.shards < 1 {
			return fmt.Errorf("--shards must be at least 1, got %d", f.shards)
		}
		if f.startDelay < 0 {
			return fmt.Errorf("--k8s-start-delay must not be negative, got %s", f.startDelay)
		}
		return nil
	}
	for _, n := range k8sFlagNames[1:7] {
		if fs.Changed(n) {
			return fmt.Errorf("--%s only matters with --k8s-job", n)
		}
	}
	return nil
}

// options are the flags as the Job's options: the pods run this command
// line, less the Job's own flags, each its shard.
func (f *k8sFlags) options(fs *pflag.FlagSet, apiKeyEnv string) loadtest.K8sJobOptions {
	return loadtest.K8sJobOptions{
		Name: f.job, Namespace: f.namespace, Shards: f.shards, Image: f.image,
		Secret: f.secret, APIKeyEnv: apiKeyEnv, Claim: f.pvc, StartDelay: f.startDelay,
		Args: podArgs(fs, k8sFlagNames),
	}
}

// podArgs is the load test's command line for the pods: "loadtest" and
// every flag given, but the named ones, as --name=value (a repeated flag
// repeated).
func podArgs(fs *pflag.FlagSet, drop []string) []string {
	skip := map[string]bool{}
	for _, n := range drop {
		skip[n] = true
	}
	args := []string{"loadtest"}
	fs.Visit(func(f *pflag.Flag) {
		if skip[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}
