import java.util.*;

// int division and remainder truncate toward zero in Java, also when an operand read from input is negative
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int x = sc.nextInt();
        int a = sc.nextInt();
        int b = sc.nextInt();
        System.out.println((2199 - x) / 200);
        System.out.println((a - b) / 3 + " " + (a - b) % 3);
        System.out.println(a / b + " " + a % b);
        long s = (long) a * 7 - x;
        System.out.println(s / 10 + " " + s % 10);
        int[] v = {a, -b, x};
        int t = 0;
        for (int e : v) t += e / 4;
        System.out.println(t);
    }
}
