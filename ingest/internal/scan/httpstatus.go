package scan

import "github.com/tpsreport/tpsreport/schemas"

// What an HTTP status code says about an attempt, for the formats that log
// one (the gateways; schemas/formats/gateways.md, "Status").

// StatusFromHTTP maps an HTTP status to a span status: 2xx/3xx ok, 408/504
// timeout, 499 (nginx: client closed) cancelled, others error.
func StatusFromHTTP(code int64) string {
	switch {
	case code >= 200 && code < 400:
		return schemas.StatusOK
	case code == 408 || code == 504:
		return schemas.StatusTimeout
	case code == 499:
		return schemas.StatusCancelled
	}
	return schemas.StatusError
}

// HTTPStatus32 returns code as an http_status when it is 100–599.
func HTTPStatus32(code *int64) *int32 {
	if code == nil || *code < 100 || *code > 599 {
		return nil
	}
	v := int32(*code)
	return &v
}
