// The `s3` driver's callback is the COS one: the driver comes from the site's upload mode.
export { POST, access } from '../cos/callback';
