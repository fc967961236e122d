package mac

// MaxKeyTries bounds the HMACs basestring.KeyMistake computes over the base
// string in one call: the right key, 22 mistaken keys and 2 keys with two
// mistakes each. It lives here, unexported from the module, so that the
// list of mistakes can grow in a minor release (it did, from 23 to 25, for
// a base64 secret's bytes put in the key unencoded); oauth1/server charges
// a diagnosis by it.
const MaxKeyTries = 25
