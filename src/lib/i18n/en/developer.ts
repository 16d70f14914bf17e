import type zh from '../zh-cn/developer';
import type { Messages } from '../types';

/** Developer verification and market review. */
export default {
} as const satisfies Messages<typeof zh>;
