/* Placeholder until the command line lands; see issue 2. */
#include <stdio.h>
int main(void)
{
	fputs("optrace: not built yet\n", stderr);
	return 2;
}
