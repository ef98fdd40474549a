// Isolated dev mode (`npm run dev -w @packyard/repository-console`): this remote inside the shell's frame.
import('./isolated-bootstrap');
