// The header's name and avatar are server-rendered, not an island: they follow the session store
// here, so a profile save shows in the header (and every island on `$user`) without a reload.
import { $user } from './stores/user';

$user.listen((user) => {
  const name = user.nickname || user.username || '';
  for (const el of document.querySelectorAll<HTMLElement>('[data-session-name]')) el.textContent = name;
  for (const el of document.querySelectorAll<HTMLElement>('[data-session-avatar]')) {
    if (user.avatar) {
      const img = document.createElement('img');
      img.src = user.avatar;
      img.alt = '';
      el.replaceChildren(img);
    } else {
      el.replaceChildren(name.slice(0, 1).toUpperCase());
    }
  }
});
