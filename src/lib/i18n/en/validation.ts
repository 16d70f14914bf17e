import type zh from '../zh-cn/validation';
import type { Messages } from '../types';

export default {
  'validation.required': 'Required',
  'validation.username': 'The account must be 3 to 15 characters, start with a letter, and use only letters, digits and underscores',
  'validation.password': 'The password must be 6 to 32 characters and must not contain & < > " \'',
  'validation.email': 'Please enter a correct e-mail address',
  'validation.mobile': 'Please enter the correct mobile number',
  'validation.code': 'Please enter the code you received',
  'validation.nickname': 'Please enter the correct name',
  'validation.birthday': 'Please enter a correct date',
  'validation.avatar': 'Please upload an image for the avatar',
  'validation.amount': 'Please enter a correct amount with at most two decimals',
  'validation.invoiceTitle': 'Please enter the invoice title (2 to 120 characters)',
  'validation.taxId': 'The tax id may contain only digits and capital letters',
  'validation.captcha': 'Please complete the captcha first',
  'validation.passwordMismatch': 'The two passwords do not match',
  'validation.samePassword': 'The new password must differ from the old one',
  'validation.content': 'Content cannot be empty',
  'validation.editorRequired': 'Editor required',
  'validation.bodyTooLong': 'The content is too long: at most 30,000 characters',
  'validation.commentTooLong': 'The comment is too long: at most 1,000 characters',
  'validation.postTitle': 'The title must be 4 to 150 characters',
  'validation.tag': 'A tag may contain letters, digits and + # . - and be at most 30 characters',
  'validation.tags': 'At most 5 tags',
  'validation.reportReason': 'Please give a reason for the report (2 to 500 characters)',
  'validation.timeZone': 'Choose a valid time zone',
} as const satisfies Messages<typeof zh>;
