import type zh from '../zh-cn/area';
import type { Messages } from '../types';

/** Administrative divisions. */
export default {
} as const satisfies Messages<typeof zh>;
