package workload

import "time"

func timeParse(s string) (float64, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9, nil
}
