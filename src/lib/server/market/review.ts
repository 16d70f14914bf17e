/** The rule that lets a member decide on developer applications, modules and versions. */
export const REVIEW_RULE = 'market/approve';
