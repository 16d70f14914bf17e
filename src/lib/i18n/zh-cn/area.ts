/** 行政区划. */
export default {
} as const;
