#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <dlfcn.h>
/* dlopen a library that links jemalloc with RTLD_DEEPBIND: its malloc calls go to jemalloc in every arm */
int main(int c,char**v){ void *h=dlopen("./libwork_tc.so", RTLD_NOW|RTLD_LOCAL|RTLD_DEEPBIND); if(!h){fprintf(stderr,"%s\n",dlerror());return 9;}
 long (*w)(long)=(long(*)(long))dlsym(h,"libwork"); printf("%ld\n", w(c>1?atol(v[1]):300000)); return 0; }
