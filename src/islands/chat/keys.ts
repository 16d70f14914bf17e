// The chat's text boxes: Enter sends, Shift+Enter adds a line.
import type { KeyboardEvent } from 'react';

/**
 * Whether this key press sends what the box holds. An IME (Chinese, Japanese) uses Enter to pick
 * characters while it composes: never then. `composing` is the box's own record of
 * compositionstart/compositionend, which some browsers report late on the keydown itself.
 */
export function sendsOnEnter(event: KeyboardEvent<HTMLTextAreaElement>, composing: boolean): boolean {
  return event.key === 'Enter' && !event.shiftKey && !composing && !event.nativeEvent.isComposing && event.keyCode !== 229;
}
