/** 开发者认证与市场审核. */
export default {
} as const;
