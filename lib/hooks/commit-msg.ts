/** commit-msg: a commit that claims `Intent-Mutation: AST_REFACTOR` must be one (lib/mutation/claim.ts). */
export { checkMutationClaim } from '../mutation/claim.js';
