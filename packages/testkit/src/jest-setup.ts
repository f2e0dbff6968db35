/** jest setupFiles entry (jest.config.js): supertest requests signed with `signedHeaders` get their real signature when sent. */
import { installSignOnSend } from './sign-on-send';

installSignOnSend();
