import type zh from '../zh-cn/market';
import type { Messages } from '../types';

/** Messages of buying, downloading, reviewing and installing modules. */
export default {
} as const satisfies Messages<typeof zh>;
