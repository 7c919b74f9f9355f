import java.util.*;

// (int) / (long) of a double saturates at the type's bounds; int products wrap (beyond most problems' constraints)
public class Main {
    static int pow(int base, int n) {
        int r = 1;
        while (n > 0) {
            if ((n & 1) == 1) r *= base;
            n >>= 1;
            base *= base;
        }
        return r;
    }

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int x = sc.nextInt();
        System.out.println((int) Math.pow(x, 3));
        System.out.println((int) -Math.pow(x, 3));
        System.out.println((long) Math.pow(x, 7));
        System.out.println(pow(3, sc.nextInt()));
    }
}
