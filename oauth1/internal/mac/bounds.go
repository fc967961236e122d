package mac

// MaxKeyTries bounds the HMACs basestring.KeyMistake computes over the base
// string in one call: the right key, 20 mistaken keys and 2 keys with two
// mistakes each. It lives here, unexported from the module, so that the
// list of mistakes can grow in a minor release; oauth1/server charges a
// diagnosis by it.
const MaxKeyTries = 23
