package lti1p1

// Verify checks the claim's oauth_consumer_key_sign with secret, the LTI
// 1.1 shared secret the tool holds for the claim's oauth_consumer_key: nil
// if it verifies, [ErrNoClaim] if there is no sign, a [*FieldError] for a
// value the sign needs that the payload lacks, [ErrSignMismatch] if it
// does not verify. Only then may the tool bind the launch's deployment to
// the LTI 1.1 consumer key. The comparison takes constant time.
func (l *Launch) Verify(secret string) error {
	if l.Claim == nil || l.Claim.OAuthConsumerKeySign == "" {
		return ErrNoClaim
	}
	return Verify(secret, l.Signed, l.Claim.OAuthConsumerKeySign)
}
