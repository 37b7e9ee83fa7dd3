package profiles

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// EncodeYAML writes v as one YAML document indented by two spaces under
// the comment head ("" for none): how thinkcap writes every profiles file.
func EncodeYAML(v any, head string) ([]byte, error) {
	var node yaml.Node
	if err := node.Encode(v); err != nil {
		return nil, err
	}
	node.HeadComment = head
	return encodeNode(&node)
}

// encodeNode writes a document node indented by two spaces.
func encodeNode(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
