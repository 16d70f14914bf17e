import type zh from '../zh-cn/captcha';
import type { Messages } from '../types';

export default {
  'captcha.title': 'Security check',
  'captcha.prompt': 'Click in order:',
  'captcha.failed': 'The correct area is not clicked, please try again!',
  'captcha.success': 'Verification is successful!',
  'captcha.loadFailed': 'Captcha loading failed, please click refresh button.',
  'captcha.refresh': 'Refresh',
  'captcha.undo': 'Undo',
  'captcha.expired': 'The captcha has expired, please refresh it',
  'captcha.required': 'Please complete the captcha first',
} as const satisfies Messages<typeof zh>;
