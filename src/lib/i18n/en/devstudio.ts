import type zh from '../zh-cn/devstudio';
import type { Messages } from '../types';

/** Developer modules, versions, sales and earnings. */
export default {
} as const satisfies Messages<typeof zh>;
