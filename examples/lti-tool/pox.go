package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The LTI 1.1 Outcomes service speaks POX, Plain Old XML envelopes in the
// imsoms_v1p0 namespace (LTI 1.1 Implementation Guide §6). Only what this
// example sends and reads is declared.

type poxRequest struct {
	XMLName   xml.Name `xml:"http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0 imsx_POXEnvelopeRequest"`
	Version   string   `xml:"imsx_POXHeader>imsx_POXRequestHeaderInfo>imsx_version"`
	MessageID string   `xml:"imsx_POXHeader>imsx_POXRequestHeaderInfo>imsx_messageIdentifier"`
	Body      struct {
		ReplaceResult *replaceResult `xml:"replaceResultRequest"`
		// Other operations (readResult, deleteResult) are recognized only
		// to be answered "unsupported".
		ReadResult   *struct{} `xml:"readResultRequest"`
		DeleteResult *struct{} `xml:"deleteResultRequest"`
	} `xml:"imsx_POXBody"`
}

type replaceResult struct {
	SourcedID string `xml:"resultRecord>sourcedGUID>sourcedId"`
	Language  string `xml:"resultRecord>result>resultScore>language"`
	Score     string `xml:"resultRecord>result>resultScore>textString"`
}

type poxResponse struct {
	XMLName     xml.Name  `xml:"http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0 imsx_POXEnvelopeResponse"`
	Version     string    `xml:"imsx_POXHeader>imsx_POXResponseHeaderInfo>imsx_version"`
	MessageID   string    `xml:"imsx_POXHeader>imsx_POXResponseHeaderInfo>imsx_messageIdentifier"`
	Status      poxStatus `xml:"imsx_POXHeader>imsx_POXResponseHeaderInfo>imsx_statusInfo"`
	ReplaceBody *struct{} `xml:"imsx_POXBody>replaceResultResponse"`
}

type poxStatus struct {
	CodeMajor    string `xml:"imsx_codeMajor"` // success, processing, failure or unsupported
	Severity     string `xml:"imsx_severity"`  // status, warning or error
	Description  string `xml:"imsx_description"`
	MessageRef   string `xml:"imsx_messageRefIdentifier"`
	OperationRef string `xml:"imsx_operationRefIdentifier"`
}

// replaceResultXML returns the replaceResult request that sets the score,
// from 0 to 1, of the result sourcedID. encoding/xml escapes sourcedID,
// which comes from the launch.
func replaceResultXML(messageID, sourcedID string, score float64) ([]byte, error) {
	if !(score >= 0 && score <= 1) {
		return nil, fmt.Errorf("score %v is outside 0.0-1.0", score)
	}
	req := poxRequest{Version: "V1.0", MessageID: messageID}
	req.Body.ReplaceResult = &replaceResult{
		SourcedID: sourcedID, Language: "en",
		Score: strconv.FormatFloat(score, 'f', -1, 64),
	}
	b, err := xml.MarshalIndent(req, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

// maxPOXBytes bounds the envelopes read; a replaceResult is a few hundred
// bytes.
const maxPOXBytes = 64 << 10

// decodePOX reads one envelope of at most maxPOXBytes into v.
func decodePOX(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, maxPOXBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxPOXBytes {
		return errors.New("POX envelope too large")
	}
	return xml.Unmarshal(b, v)
}
