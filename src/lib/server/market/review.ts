/** The rule that lets a member decide on developer applications, modules and versions. */
export const REVIEW_RULE = 'market/approve';

/** The rule that lets a member install and uninstall site modules from the market. */
export const INSTALL_RULE = 'market/install';
