package workload

import "time"

// parseRFC3339 reads an RFC 3339 timestamp as unix seconds. The common
// shape, 2025-06-01T12:00:00.25Z or with a ±hh:mm offset (a space instead
// of the "T" is accepted, as many loggers write it), is parsed here without
// allocating; anything else goes to time.Parse, which also has the last
// word on what is valid, so both routes accept the same timestamps.
func parseRFC3339(b []byte) (float64, bool) {
	if v, ok := parseRFC3339Fast(b); ok {
		return v, true
	}
	s := string(b)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && len(s) > 10 && s[10] == ' ' {
		t, err = time.Parse(time.RFC3339Nano, s[:10]+"T"+s[11:])
	}
	if err != nil {
		return 0, false
	}
	// Seconds and nanoseconds separately: float64 keeps ~0.2 µs at today's
	// unix times, far below anything a log resolves.
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9, true
}

// parseRFC3339Fast handles YYYY-MM-DD[T ]hh:mm:ss[.f{1,9}](Z|±hh:mm) with
// every field in range; it reports false for anything else.
func parseRFC3339Fast(b []byte) (float64, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	year, ok1 := digitsAt(b, 0, 4)
	month, ok2 := digitsAt(b, 5, 2)
	day, ok3 := digitsAt(b, 8, 2)
	hour, ok4 := digitsAt(b, 11, 2)
	minute, ok5 := digitsAt(b, 14, 2)
	sec, ok6 := digitsAt(b, 17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 ||
		day > daysInMonth(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	i := 19
	nanos := 0
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			nanos = nanos*10 + int(b[i]-'0')
			i++
		}
		n := i - start
		if n == 0 || n > 9 {
			return 0, false
		}
		for ; n < 9; n++ {
			nanos *= 10
		}
	}
	offset := 0
	switch {
	case i == len(b)-1 && b[i] == 'Z':
	case i == len(b)-6 && (b[i] == '+' || b[i] == '-') && b[i+3] == ':':
		oh, ok1 := digitsAt(b, i+1, 2)
		om, ok2 := digitsAt(b, i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		offset = oh*3600 + om*60
		if b[i] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	unix := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return float64(unix) + float64(nanos)/1e9, true
}

// digitsAt reads n decimal digits of b from i.
func digitsAt(b []byte, i, n int) (int, bool) {
	v := 0
	for _, c := range b[i : i+n] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func daysInMonth(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the given
// proleptic Gregorian date (Howard Hinnant's days_from_civil).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
