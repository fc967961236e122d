package providers_test

import (
	"fmt"

	"github.com/countersign/countersign/oauth1/providers"
)

// NetSuite's realm and hosts both come from the account id, in the forms
// NetSuite wants each.
func ExampleNetSuite() {
	cfg := providers.NetSuite("1234567-sb1")
	fmt.Println(cfg.Realm)
	fmt.Println(cfg.Signer.SignatureMethod())
	fmt.Println(cfg.Endpoint.RequestTokenURL)
	fmt.Println("https://" + providers.NetSuiteHost("1234567_SB1") + ".suitetalk.api.netsuite.com/services/rest/record/v1/customer")
	// Output:
	// 1234567_SB1
	// HMAC-SHA256
	// https://1234567-sb1.restlets.api.netsuite.com/rest/requesttoken
	// https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer
}
