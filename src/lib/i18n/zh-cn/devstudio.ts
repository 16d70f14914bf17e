/** 开发者的模块、版本、销售与收益. */
export default {
} as const;
