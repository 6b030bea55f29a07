package compare

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/tpsreport/tpsreport/schemas"
)

// LoadCriteria reads an acceptance file (YAML): any subset of the fields of
// schemas.Criteria, the rest keeping their defaults. An unknown key is an error,
// so a typo does not silently keep a default.
func LoadCriteria(path string) (schemas.Criteria, error) {
	c := schemas.DefaultCriteria()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("read criteria: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && err.Error() != "EOF" {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := validate(c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
