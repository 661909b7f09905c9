// In process, no HTTP: the same API, validation, permissions and errors as over HTTP.
import { createHostingService, BadRequestError } from 'forgekit';

const hosting = await createHostingService(); // in-memory database
try {
  // `hosting.<group>` acts as the administrator root.
  const alice = await hosting.users.create({
    email: 'alice@example.com',
    username: 'alice',
    name: 'Alice',
    password: 'correct-horse-battery',
    skip_confirmation: true,
  });

  // `hosting.as(caller)` binds the API to a user (id, username or token).
  const asAlice = hosting.as('alice');
  await asAlice.emails.create({ email: 'alice@work.example.com' });
  console.log(
    'alice has',
    (await asAlice.emails.list()).map((email) => email.email),
  );

  // Errors are typed, with the HTTP status and body they would have had.
  try {
    await asAlice.emails.create({ email: 'alice@work.example.com' });
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    console.log(error.status, JSON.stringify(error.body()));
  }

  // What happens is recorded: subscribers hear of each event once its write has committed.
  const heard: string[] = [];
  hosting.events.subscribe('*', (event) => {
    heard.push(event.kind);
  });

  // A project is a real git repository: the first commit makes its default branch.
  const project = await asAlice.projects.create({ name: 'app' });
  await asAlice.repositoryFiles.create(project.id, 'README.md', { branch: 'main', content: '# App\n', commit_message: 'Start' });
  await asAlice.commits.create(project.id, {
    branch: 'main',
    commit_message: 'Add the code',
    actions: [{ action: 'create', file_path: 'src/app.js', content: 'console.log(1);\n' }],
  });
  const history = await asAlice.commits.list(project.id);
  console.log(
    'main has',
    history.map((commit) => commit.title),
    'default branch',
    (await asAlice.projects.get(project.id)).default_branch,
  );

  console.log('heard', heard);
  const pushes = await asAlice.events.listForProject(project.id, { action: 'pushed' });
  console.log(
    'events',
    pushes.map((event) => `${event.action_name} ${event.push_data?.ref}: ${event.push_data?.commit_title}`),
  );

  // Tokens work too: this is what a client would send as PRIVATE-TOKEN.
  const { token } = await hosting.personalAccessTokens.create(alice.id, { name: 'ci', scopes: ['read_user'] });
  console.log('signed in with a token as', (await hosting.as(token).users.current()).username);
} finally {
  await hosting.close();
}
