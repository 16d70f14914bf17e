import type zh from '../zh-cn/upload';
import type { Messages } from '../types';

export default {
  'upload.incomplete': 'The data of the uploaded file is incomplete!',
  'upload.typeNotAllowed': 'The type of uploaded file is not allowed!',
  'upload.tooLarge': 'The size of the uploaded file exceeds the allowed range!',
  'upload.success': 'File uploaded successfully',
  'upload.driverNotSupported': 'Driver {driver} not supported',
  'upload.topicInvalid': 'The topic may only contain letters, digits, underscores and dashes, at most 20 characters',
} as const satisfies Messages<typeof zh>;
