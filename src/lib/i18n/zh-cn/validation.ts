// Field messages shared by forms in the browser and the API (spec §5).
export default {
  'validation.required': '必填',
  'validation.username': '账户名需为 3 到 15 个字符，以字母开头，只能包含字母、数字和下划线',
  'validation.password': '密码需为 6 到 32 个字符，且不能包含 & < > " \'',
  'validation.email': '请输入正确的邮箱地址',
  'validation.mobile': '请输入正确的手机号',
  'validation.code': '请输入收到的验证码',
  'validation.nickname': '请输入正确的名称',
  'validation.birthday': '请输入正确的日期',
  'validation.avatar': '请上传图片作为头像',
  'validation.amount': '请输入正确的金额，最多两位小数',
  'validation.invoiceTitle': '请输入发票抬头（2 到 120 个字符）',
  'validation.taxId': '税号只能包含数字和大写字母',
  'validation.captcha': '请先完成人机验证',
  'validation.passwordMismatch': '两次输入的密码不一致',
  'validation.samePassword': '新密码不能与旧密码相同',
} as const;
