/** 模块购买、下载、评价与安装的消息. */
export default {
} as const;
