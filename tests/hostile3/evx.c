#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int c,char**v){ long n=c>1?atol(v[1]):300000; void *a[256]={0}; unsigned long s=0; for(long i=0;i<n;i++){int k=(i*31)&255; free(a[k]); a[k]=malloc(16+(i*7)%4000); ((char*)a[k])[0]=i; s+=((char*)a[k])[0];}
 FILE*o=fopen("evx.log","a"); fprintf(o,"pid %d MALLOC_CONF=%s\n",getpid(),getenv("MALLOC_CONF")?getenv("MALLOC_CONF"):"(unset)"); fclose(o);
 if (c>2 && !strcmp(v[2],"_exit")) _exit(0); return 0;}
