package loadtest

import "strconv"

// K8sJobManifest is the part of Kubernetes' batch/v1 Job that the load test
// sets, with the API's JSON field names. Printing a manifest is all thinkcap
// does with Kubernetes, and the API's own Go types would link some fifty
// packages into the binary for it; k8s_test.go decodes the printed manifest
// strictly into k8s.io/api's Job and prints it back, byte for byte, so a
// field misspelled or missing here fails there.
type K8sJobManifest struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Metadata   k8sObjectMeta `json:"metadata"`
	Spec       k8sJobSpec    `json:"spec"`
	// Status is always empty, as the API's types print it.
	Status struct{} `json:"status"`
}

type k8sObjectMeta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type k8sJobSpec struct {
	Completions    int            `json:"completions"`
	Parallelism    int            `json:"parallelism"`
	CompletionMode string         `json:"completionMode"`
	BackoffLimit   int            `json:"backoffLimit"`
	Template       k8sPodTemplate `json:"template"`
}

type k8sPodTemplate struct {
	Metadata k8sObjectMeta `json:"metadata"`
	Spec     k8sPodSpec    `json:"spec"`
}

type k8sPodSpec struct {
	RestartPolicy string         `json:"restartPolicy"`
	Containers    []k8sContainer `json:"containers"`
	Volumes       []k8sVolume    `json:"volumes"`
}

type k8sContainer struct {
	Name         string           `json:"name"`
	Image        string           `json:"image,omitempty"`
	Args         []string         `json:"args,omitempty"`
	Env          []k8sEnvVar      `json:"env,omitempty"`
	Resources    k8sResources     `json:"resources"`
	VolumeMounts []k8sVolumeMount `json:"volumeMounts,omitempty"`
}

type k8sEnvVar struct {
	Name      string       `json:"name"`
	ValueFrom k8sEnvSource `json:"valueFrom"`
}

type k8sEnvSource struct {
	SecretKeyRef k8sSecretKey `json:"secretKeyRef"`
}

type k8sSecretKey struct {
	Name     string `json:"name"`
	Key      string `json:"key"`
	Optional bool   `json:"optional"`
}

// k8sResources holds quantities in the API's canonical spelling
// (byteQuantity, milliQuantity), keyed by resource name.
type k8sResources struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

type k8sVolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
}

type k8sVolume struct {
	Name                  string           `json:"name"`
	PersistentVolumeClaim *k8sClaimRef     `json:"persistentVolumeClaim,omitempty"`
	ConfigMap             *k8sConfigMapRef `json:"configMap,omitempty"`
}

type k8sClaimRef struct {
	ClaimName string `json:"claimName"`
}

type k8sConfigMapRef struct {
	Name string `json:"name"`
}

// byteQuantity spells a whole number of bytes as a binary-SI quantity does
// in its canonical form (k8s.io/apimachinery/pkg/api/resource/quantity.go):
// the largest power-of-1024 suffix that divides it exactly.
func byteQuantity(n int64) string {
	suffixes := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	if n > -1024 && n < 1024 {
		return milliQuantity(1000 * n) // below 1024 the API spells bytes in decimal SI
	}
	i := 0
	for n != 0 && n%1024 == 0 && i < len(suffixes)-1 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + suffixes[i]
}

// milliQuantity spells thousandths (of a core) as a decimal-SI quantity
// does in its canonical form: the largest power-of-1000 suffix that keeps
// the number whole.
func milliQuantity(milli int64) string {
	if milli == 0 {
		return "0"
	}
	suffixes := []string{"m", "", "k", "M", "G", "T", "P", "E"}
	i := 0
	for milli != 0 && milli%1000 == 0 && i < len(suffixes)-1 {
		milli /= 1000
		i++
	}
	return strconv.FormatInt(milli, 10) + suffixes[i]
}
