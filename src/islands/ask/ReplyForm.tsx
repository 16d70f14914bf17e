// The reply box under a post: the site editor with a draft kept per post. Hydrated on the
// reader's first interaction (client:interact), so reading a post ships no framework code.
import { useRef, useState, type FormEvent } from 'react';
import { request } from '../../lib/client/api';
import { formNonce } from '../../lib/client/nonce';
import EditorSlot, { type EditorState } from '../modules/EditorSlot';
import { clearDraft } from '../../lib/client/drafts';
import { ReplyInput } from '../../lib/shared/validation/ask';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';

interface Props { postId: number; messages: Messages; editor: EditorState }

export default function ReplyForm({ postId, messages, editor }: Props) {
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({ content: '' });
  const nonce = useRef(formNonce());
  const [sent, setSent] = useState(false);
  const draftKey = `ask-reply:${postId}`;

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const parsed = ReplyInput.safeParse({ post_id: postId, content: values.content, nonce: nonce.current });
    if (!parsed.success) { setErrors(zodFields(parsed.error, messages)); return; }
    setErrors({});
    void run(async () => {
      const { data } = await request<{ id: number }>('/api/ask/reply', { method: 'POST', data: parsed.data, showSuccessMessage: true });
      clearDraft(draftKey);
      setSent(true);
      const url = new URL(location.href);
      url.hash = `reply-${data.id}`;
      location.assign(url.href);
      location.reload();
    });
  };

  return (
    <form method="post" ref={formRef} className="reply-form" onSubmit={submit} noValidate>
      <EditorSlot editor={editor}
        name="content" label={translate(messages, 'ask.reply.write')} value={values.content}
        onChange={(content) => setValues({ content })} messages={messages} draftKey={draftKey} uploadTopic="ask" rows={8}
      />
      {errors.content && <p className="field-error" role="alert">{errors.content}</p>}
      <p><button className="btn btn-primary" type="submit" disabled={busy || sent}>{translate(messages, 'ask.reply.submit')}</button></p>
    </form>
  );
}
