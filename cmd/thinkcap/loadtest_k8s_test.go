package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// TestLoadtestK8sJob: --k8s-job prints a manifest that decodes strictly
// into a batch/v1 Job with the fields the flow needs, and sends nothing.
func TestLoadtestK8sJob(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	out, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "Qwen/Qwen3-8B",
		"--workload", sampleLog, "--speedup", "24", "--out", "ignored", "--api-key-env", "VLLM_KEY",
		"--k8s-job", "launch-test", "--shards", "8", "--k8s-image", "registry.example/thinkcap:v1", "--k8s-start-delay", "3m")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests reached the server: --k8s-job sends nothing", hits.Load())
	}
	if !strings.Contains(out, "kubectl create secret generic launch-test-api-key") || !strings.Contains(out, "thinkcap merge") {
		t.Errorf("the flow is missing from the comments:\n%s", out)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(out), &job); err != nil {
		t.Fatalf("not a Job: %v\n%s", err, out)
	}
	spec := &job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || job.Name != "launch-test" ||
		spec.Completions == nil || *spec.Completions != 8 || spec.Parallelism == nil || *spec.Parallelism != 8 ||
		spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("job %+v", job)
	}
	pod := spec.Template.Spec
	if len(pod.Containers) != 1 || pod.RestartPolicy != "Never" {
		t.Fatalf("pod %+v", pod)
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"loadtest", "--shard $(JOB_COMPLETION_INDEX)/8", "--out /results/shard-$(JOB_COMPLETION_INDEX)", "--speedup=24", "--api-key-env=VLLM_KEY",
		"--workload=/workload/production.jsonl", "--start-at "} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q: %s", want, args)
		}
	}
	for _, gone := range []string{"--k8s-job", "--shards", "ignored", "--k8s-image"} {
		if strings.Contains(args, gone) {
			t.Errorf("args keep %q: %s", gone, args)
		}
	}
	if i := strings.Index(args, "--start-at "); i >= 0 {
		at, err := time.Parse(time.RFC3339, strings.Fields(args[i:])[1])
		if err != nil || at.Before(time.Now().Add(2*time.Minute)) || at.After(time.Now().Add(4*time.Minute)) {
			t.Errorf("start at %v (%v): want about 3 minutes ahead", at, err)
		}
	}
	if c.Image != "registry.example/thinkcap:v1" || len(c.Env) != 1 || c.Env[0].Name != "VLLM_KEY" ||
		c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.SecretKeyRef == nil || c.Env[0].ValueFrom.SecretKeyRef.Name != "launch-test-api-key" {
		t.Errorf("container %+v", c)
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
		t.Errorf("no resource requests: %+v", c.Resources)
	}
	mounts := map[string]bool{}
	for _, v := range pod.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "launch-test-results":
			mounts["results"] = true
		case v.ConfigMap != nil && v.ConfigMap.Name == "launch-test-workload":
			mounts["workload"] = true
		}
	}
	if !mounts["results"] || !mounts["workload"] {
		t.Errorf("volumes %+v", pod.Volumes)
	}
	if _, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--requests", "1", "--shards", "4"); code != exitBadInput || !strings.Contains(errOut, "--shards") {
		t.Errorf("--shards without --k8s-job: exit %d: %s", code, errOut)
	}
}
