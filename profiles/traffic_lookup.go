package profiles

import (
	"fmt"
	"strings"
)

// LookupTraffic is a traffic profile by name, or the one profile of a YAML
// file (as `thinkcap fit` writes it).
func (c *Catalog) LookupTraffic(nameOrFile string) (Traffic, error) {
	if !strings.HasSuffix(nameOrFile, ".yaml") && !strings.HasSuffix(nameOrFile, ".yml") {
		return c.TrafficProfile(nameOrFile)
	}
	var file Catalog
	if err := file.LoadPath(nameOrFile); err != nil {
		return Traffic{}, err
	}
	names := file.TrafficNames()
	if len(names) != 1 {
		return Traffic{}, fmt.Errorf("%s defines %d traffic profiles (%s); load it with --profiles and pick one by name", nameOrFile, len(names), strings.Join(names, ", "))
	}
	return file.Traffic[names[0]], nil
}
