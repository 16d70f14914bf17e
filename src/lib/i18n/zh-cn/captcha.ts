// Click captcha (spec §5). The icon names are what the visitor is asked to click.
export default {
  'captcha.title': '安全验证',
  'captcha.prompt': '请依次点击：',
  'captcha.failed': '未点中正确区域，请重试！',
  'captcha.success': '验证成功！',
  'captcha.loadFailed': '验证码加载失败，请点击刷新按钮。',
  'captcha.refresh': '刷新',
  'captcha.undo': '撤销',
  'captcha.expired': '验证码已过期，请刷新',
  'captcha.required': '请先完成人机验证',
} as const;
