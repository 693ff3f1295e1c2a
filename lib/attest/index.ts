/**
 * attest: signed attestations of what the authority checked. The server's post-receive (or the CI
 * carry job) signs, per commit the protected branch gains, an in-toto statement of what intent
 * checked in a DSSE envelope with an SSH key (envelope); anyone verifies them offline against the
 * allowed signers on the protected branch, recomputing the predicate with intent verify (attest).
 */
export { ALLOWED_SIGNERS, ATTEST_REF, attestationStates, PREDICATE_TYPE, signRange, verifyAttestations, type AttestCode, type AttestFinding, type AttestVerifyResult, type CheckedFacts, type SignResult, type Statement } from './attest.js';
export { checkSignature, NAMESPACE, pae, PAYLOAD_TYPE, signStatement, type Envelope } from './envelope.js';
