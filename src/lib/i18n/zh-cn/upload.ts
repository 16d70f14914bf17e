export default {
  'upload.incomplete': '上传文件的数据不完整！',
  'upload.typeNotAllowed': '上传文件的类型不被允许！',
  'upload.tooLarge': '上传文件的大小超出允许范围！',
  'upload.success': '文件上传成功',
  'upload.driverNotSupported': '不支持的上传驱动：{driver}',
  'upload.topicInvalid': '上传分类只能包含字母、数字、下划线和短横线，最多 20 个字符',
} as const;
