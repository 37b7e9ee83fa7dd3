package profiles

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// EncodeTrafficYAML writes traffic profiles as a profile file that LoadPath
// reads back: a head comment, then `traffic:` with each class's empty mode,
// category and prefix left out, distribution specs double-quoted, and, when
// comment returns one, a comment above each class's token field (field is
// prompt_tokens, think_tokens or answer_tokens).
func EncodeTrafficYAML(ts []Traffic, head string, comment func(profile, class int, field string) string) ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(struct {
		Traffic []Traffic `yaml:"traffic"`
	}{ts}); err != nil {
		return nil, err
	}
	root.HeadComment = head
	profiles := mappingValue(&root, "traffic")
	for p, pn := range profiles.Content {
		for c, cn := range mappingValue(pn, "classes").Content {
			dropEmpty(cn, "mode", "category", "prefix_id", "prefix_tokens")
			for i := 0; i+1 < len(cn.Content); i += 2 {
				switch key := cn.Content[i].Value; key {
				case "prompt_tokens", "think_tokens", "answer_tokens":
					cn.Content[i+1].Style = yaml.DoubleQuotedStyle
					if comment != nil {
						cn.Content[i].HeadComment = comment(p, c, key)
					}
				}
			}
		}
	}
	return encodeNode(&root)
}

// mappingValue is the value of key in a mapping node; the keys asked for
// come from this package's own struct tags, so they are always there.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return &yaml.Node{Kind: yaml.SequenceNode}
}

// dropEmpty removes keys whose values are "" or 0 from a mapping node.
func dropEmpty(n *yaml.Node, keys ...string) {
	var kept []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if (v.Value == "" || v.Value == "0") && slices.Contains(keys, k.Value) {
			continue
		}
		kept = append(kept, k, v)
	}
	n.Content = kept
}
