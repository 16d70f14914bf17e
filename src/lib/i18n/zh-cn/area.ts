/** 行政区划. */
export default {
  'area.province': '省份',
  'area.city': '城市',
  'area.district': '区县',
  'area.choose': '请选择',
  'area.loading': '加载中…',
  'area.failed': '加载失败，点击重试',
  'area.provinceInvalid': '省份编码应为 2 位数字',
  'area.cityInvalid': '城市编码应为 4 位数字',
  'area.cityNeedsProvince': '查询城市的区县时需同时提供省份编码',
} as const;
